import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';
import { typeCheckProgram } from '../support/type-check.js';

/**
 * The served OpenAPI document is usable outside TypeScript's route table: a third-party generator
 * (openapi-typescript) turns it into types, and a small program type-checks against them.
 */

const service = useService();

const PROGRAM = `import type { components, paths } from './api.js';

type User = components['schemas']['User'];
type GetUser = paths['/users/{id}']['get'];

export const email = (user: User): string => user.email;
export const idOf = (answer: GetUser['responses'][200]['content']['application/json']): string => answer.id;
export const newUser: components['schemas']['NewUserRequest'] = { email: 'a@example.com', name: 'A', userType: 'STANDARD' };
export const listQuery: paths['/users']['get']['parameters']['query'] = { page: 0, pageSize: 100 };
export const created = (headers: paths['/users']['post']['responses'][204]['headers']) => headers.Location;
// @ts-expect-error NewUserRequest needs an email
export const wrong: components['schemas']['NewUserRequest'] = { name: 'A', userType: 'STANDARD' };
`;

describe('the OpenAPI document, through openapi-typescript', () => {
  it('generates types a program type-checks against, with the spec names', async () => {
    const document = (await (await fetch(`${service.baseUrl}/idp/openapi.json`)).json()) as OpenAPI3;
    const generated = astToString(await openapiTS(document));
    expect(generated).not.toContain('__schema');
    const problems = typeCheckProgram('openapi-consumer', { 'program.ts': PROGRAM, 'api.ts': generated });
    expect(problems).toEqual([]);
  });
});
