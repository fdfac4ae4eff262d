// Start Swagger UI on the page's element, with the schema it names.
"use strict";
(function () {
  const element = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({
    url: element.dataset.schema,
    domNode: element,
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
  });
})();
