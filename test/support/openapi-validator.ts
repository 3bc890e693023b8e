import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

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
  private readonly operations: { pattern: RegExp; path: string }[];
  private readonly basePath: string;

  constructor(private readonly document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ components: document.components ?? {} }, 'openapi.json');
    this.basePath = new URL(document.servers[0]?.url ?? '/idp', 'http://x').pathname;
    this.operations = Object.keys(document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** Throws with a readable message when the response is not what the document promises. */
  assertResponse(method: string, url: string, status: number, body: unknown): void {
    const pathname = new URL(url, 'http://x').pathname;
    if (!pathname.startsWith(`${this.basePath}/`)) return;
    const relative = pathname.slice(this.basePath.length);
    // Static paths win over templated ones, as in API Gateway.
    const candidates = this.operations.filter(({ pattern }) => pattern.test(relative));
    const operationPath = candidates.sort((a, b) => a.path.split('{').length - b.path.split('{').length)[0]
      ?.path;
    const operation = operationPath ? this.document.paths[operationPath]?.[method.toLowerCase()] : undefined;
    if (!operation || !operationPath) throw new Error(`${method} ${relative} is not in the OpenAPI document`);
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
