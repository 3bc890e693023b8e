import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { type CompiledRoutes, compileRoutes, parseRequestTarget } from '../../bin/local/gateway/routing.js';

interface OpenApiDocument {
  servers: { url: string }[];
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components?: { schemas?: Record<string, unknown> };
}

/**
 * Checks real responses against the service's own OpenAPI document: the status must be
 * documented for the operation, and the body must match its (closed) schema exactly.
 */
export class OpenApiValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly operations: CompiledRoutes<{ method: string; path: string }>;
  private readonly basePath: string;

  constructor(private readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ components: document.components ?? {} }, 'openapi.json');
    this.basePath = new URL(document.servers[0]?.url ?? '/idp', 'http://x').pathname;
    // The operations are found the way the gateway routes requests.
    this.operations = compileRoutes(
      Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
      ),
    );
  }

  /** Throws with a readable message when the response is not what the document promises. */
  assertResponse(method: string, url: string, status: number, body: unknown): void {
    const pathname = parseRequestTarget(url)?.rawPath ?? '';
    if (!pathname.startsWith(`${this.basePath}/`)) return;
    const relative = pathname.slice(this.basePath.length);
    const operationPath = this.operations.match(method.toUpperCase(), relative)?.route.path;
    const operation = operationPath ? this.document.paths[operationPath]?.[method.toLowerCase()] : undefined;
    if (!operation || !operationPath) {
      // A path that names no route gets API Gateway's own 404, not an operation's answer.
      if (status === 404 && JSON.stringify(body) === '{"message":"Not Found"}') return;
      throw new Error(`${method} ${relative} is not in the OpenAPI document`);
    }
    const response = operation.responses[String(status)];
    if (!response) throw new Error(`${method} ${operationPath} does not document status ${status}`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (body !== undefined && body !== '') {
        throw new Error(
          `${method} ${operationPath} ${status} documents no body but got ${JSON.stringify(body)}`,
        );
      }
      return;
    }
    const key = `${method} ${operationPath} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(this.rewriteRefs(schema));
      this.compiled.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${key} body does not match the OpenAPI document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
    }
  }

  private rewriteRefs(schema: unknown): object {
    return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"openapi.json#/'));
  }
}
