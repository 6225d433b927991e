/**
 * The OpenAPI 1.0.0 document, generated from the routes' zod schemas and finished by
 * openapi-document.ts; served as JSON at /openapi.json and browsable at /docs. The multipart
 * body of POST /v1/predictions cannot be validated by the type provider, so its documented
 * schema comes from the zod form component (PredictionCreateForm) the clients share.
 */
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { PredictionCreateForm } from "../schemas/predictions.ts";
import { finishDocument } from "./openapi-document.ts";

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  // Registered in zod's global registry by its meta id; referenced by the finished document.
  void PredictionCreateForm;
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "causeway",
        description:
          "Ranked protein targets and causal explanations from transcriptomic datasets. Errors carry " +
          "a stable code in the X-Service-Error-Code header and a JSON body {detail}. A method a path " +
          "does not declare is answered 405 with an Allow header (components.responses.MethodNotAllowed).",
        version: "1.0.0",
      },
      components: { securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" } } },
    },
    transform: (doc) => {
      const out = jsonSchemaTransform(doc);
      if (doc.url === "/v1/predictions" && doc.route.method === "POST") {
        return {
          schema: { ...(out.schema as Record<string, unknown>), consumes: ["multipart/form-data"] },
          url: out.url,
        };
      }
      return out;
    },
    transformObject: (doc) => finishDocument(jsonSchemaTransformObject(doc) as Record<string, unknown>),
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
