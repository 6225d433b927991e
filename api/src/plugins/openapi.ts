/**
 * The OpenAPI 1.0.0 document, generated from the routes' zod schemas; served as JSON at
 * /openapi.json and browsable at /docs. The multipart body of POST /v1/predictions is not
 * validated by the type provider (multipart cannot be), so its documented schema is attached
 * here from the same zod form schema the handler validates with.
 */
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { z } from "zod";
import { PredictionMultipartBody } from "../schemas/predictions.ts";

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const formSchema = z.toJSONSchema(PredictionMultipartBody, { target: "openapi-3.0", io: "input" });
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "causeway",
        description: "Ranked protein targets and causal explanations from transcriptomic datasets.",
        version: "1.0.0",
      },
      components: { securitySchemes: { ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" } } },
    },
    transform: (doc) => {
      const out = jsonSchemaTransform(doc);
      if (doc.url === "/v1/predictions" && doc.route.method === "POST") {
        const schema = { ...(out.schema as Record<string, unknown>) };
        schema.consumes = ["multipart/form-data"];
        schema.body = formSchema;
        return { schema, url: out.url };
      }
      return out;
    },
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
