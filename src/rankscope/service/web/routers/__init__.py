"""The API's and the console's routes, one `fastapi.APIRouter` per resource."""
