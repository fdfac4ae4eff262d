"""The service's HTTP shell: the app's wiring (`app`), one router per resource (`routers`), the
request and response bodies (`models`), and what every request passes first (`guard`)."""
