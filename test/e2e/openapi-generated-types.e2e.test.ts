import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';
import { PROJECT_TEMP } from '../support/temp-dir.js';

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
    const directory = join(PROJECT_TEMP, `openapi-consumer-${process.pid}`);
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, 'api.ts'), generated);
    writeFileSync(join(directory, 'program.ts'), PROGRAM);
    expect(generated).not.toContain('__schema');
    const program = ts.createProgram([join(directory, 'program.ts')], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(problems).toEqual([]);
  });
});
