import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildClient, CLIENT_DIST } from '../../bin/build-client.js';
import { usersRoutes } from '../../shared/api/routes/users.js';
import { typeCheckProgram } from '../support/type-check.js';

/** `import { IdpClient } from 'idp/client'`, as a program outside this repository's sources uses it. */

beforeAll(buildClient, 60_000);

describe('the idp/client export', () => {
  it('is one ESM file that imports nothing and loads in plain Node', () => {
    const code = readFileSync(join(CLIENT_DIST, 'client', 'index.js'), 'utf8');
    expect(code).not.toMatch(/^\s*import\s|\bimport\(|\brequire\(/m);
    // The route table's schemas stay out: the client takes its types from them, not their code.
    expect(code).not.toMatch(/\$ZodType|globalRegistry|safeParse/);
    console.log(`idp/client bundle: ${code.length} bytes`);
    const output = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { IdpClient, IdpApiError } from 'idp/client';
         const client = new IdpClient({ baseUrl: 'https://idp.example', credentials: { clientId: 'a', clientSecret: 'b' } });
         process.stdout.write(JSON.stringify([typeof client.listUsers, typeof client.pages, new IdpApiError(404, { message: 'No' }).message]));`,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toEqual(['function', 'function', 'No']);
  });

  it('is tree-shakable: a program using only the error type bundles none of the client', async () => {
    const bundle = async (code: string) =>
      (
        await build({
          stdin: { contents: code, resolveDir: process.cwd(), loader: 'js' },
          bundle: true,
          format: 'esm',
          minify: true,
          write: false,
          logLevel: 'error',
        })
      ).outputFiles[0]?.text ?? '';
    const errorsOnly = await bundle(
      "import { IdpApiError } from 'idp/client'; console.log(new IdpApiError(404, { message: 'No' }));",
    );
    const whole = await bundle(
      "import { IdpClient } from 'idp/client'; console.log(new IdpClient({ baseUrl: 'https://idp.example' }));",
    );
    expect(whole).toContain('/idp/users/{id}');
    expect(errorsOnly).not.toContain('/idp/users/{id}');
    expect(errorsOnly.length).toBeLessThan(whole.length / 10);
  });

  it('carries the types: a consumer program type-checks against them, and a wrong call does not', () => {
    const problems = typeCheckProgram(
      'client-consumer',
      {
        'consumer.ts': `import { IdpClient } from 'idp/client';
const client = new IdpClient({ baseUrl: 'https://idp.example', tokenProvider: async () => 'token' });
export const email = async (): Promise<string> => (await client.getUser({ path: { id: 'u1' } })).email;
// @ts-expect-error getUser needs the id
export const wrong = () => client.getUser();
`,
      },
      ['node'],
    );
    expect(problems).toEqual([]);
    // Editors show each method's doc comment: the operation's description in the route table.
    const declarations = readFileSync(
      join(CLIENT_DIST, 'types', 'shared', 'client', 'operations.d.ts'),
      'utf8',
    );
    expect(declarations).toContain(`${usersRoutes.getUser.description} `);
  });
});
