import { describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../shared/api/openapi.js';
import { OpenApiValidator } from '../support/openapi-validator.js';

// The e2e tests rely on this validator; it must really refuse what the document does not promise.
describe('OpenAPI response validator', () => {
  const validator = new OpenApiValidator(createOpenApiDocument('http://localhost') as never);
  const url = 'http://localhost/idp/permissions/USER.LIST';
  const permission = {
    id: 'USER.LIST',
    module: 'USER',
    accessType: 'LIST',
    moduleDisplayName: 'Users',
    accessTypeDisplayName: 'List',
  };

  it('accepts a documented response', () => {
    expect(() => validator.assertResponse('GET', url, 200, permission)).not.toThrow();
  });

  it('refuses extra fields, missing fields, undocumented statuses and unknown operations', () => {
    expect(() => validator.assertResponse('GET', url, 200, { ...permission, extra: 1 })).toThrow(
      /does not match/,
    );
    expect(() => validator.assertResponse('GET', url, 200, { id: 'a' })).toThrow(/does not match/);
    expect(() => validator.assertResponse('GET', url, 418, permission)).toThrow(
      /does not document status 418/,
    );
    expect(() => validator.assertResponse('DELETE', url, 204, undefined)).toThrow(
      /not in the OpenAPI document/,
    );
  });

  it("accepts API Gateway's own 401 body and the service's error shape", () => {
    expect(() => validator.assertResponse('GET', url, 401, { message: 'Unauthorized' })).not.toThrow();
    const error = { status: 404, error: 'Not Found', message: 'x', requestId: 'r', timestamp: 1 };
    expect(() => validator.assertResponse('GET', url, 404, error)).not.toThrow();
  });
});
