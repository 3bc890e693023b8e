import { describe, expect, it } from 'vitest';
import {
  connectDirectory,
  ERROR_SCHEMA,
  PATCH_OP,
  provisionUser,
  type ScimDirectory,
} from '../../support/scim.js';
import { useFixture, useService } from '../../support/service.js';

/**
 * A PATCH is applied to the User as answered, which must then parse as a body (functions/scim.ts):
 * whatever name the service stores, its answer's parts (up to the whole name, 200 characters) are
 * accepted back, while the name a PATCH makes keeps the stored limit.
 */
const service = useService();
const mine = useFixture(() => service.freshOrganization());

const userNamed = (directory: ScimDirectory, displayName: string) =>
  provisionUser(directory, 'named', { displayName });
const patch = (directory: ScimDirectory, id: string, path: string, value: unknown) =>
  directory.call('PATCH', `/Users/${id}`, {
    schemas: [PATCH_OP],
    Operations: [{ op: 'replace', path, value }],
  });

describe('SCIM users with long names', () => {
  it('deactivates by PATCH a user whose name parts are longer than a directory sends them', async () => {
    const directory = await connectDirectory(service, mine);
    // Positive control: a 100-character name, answered as a 100-character givenName.
    const short = await userNamed(directory, 'N'.repeat(100));
    const shortAnswer = await patch(directory, short, 'active', false);
    expect(shortAnswer.status).toBe(200);
    expect(shortAnswer.body.active).toBe(false);

    // Names the service stores: 200 characters without a space (all of it the givenName), and one
    // whose givenName (before the last space) is 150 characters and familyName 49.
    for (const name of ['N'.repeat(200), `${'G'.repeat(150)} ${'F'.repeat(49)}`]) {
      const id = await userNamed(directory, name);
      const read = await directory.call('GET', `/Users/${id}`);
      expect(read.body.active).toBe(true);
      expect(read.body.name.givenName.length).toBeGreaterThan(100);
      const answer = await patch(directory, id, 'active', false);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ active: false, displayName: name });
    }
  });

  it('refuses a PATCH that makes the name longer than the service stores (400 invalidValue), the user unchanged', async () => {
    const directory = await connectDirectory(service, mine);
    const name = `${'G'.repeat(150)} ${'F'.repeat(49)}`;
    const id = await userNamed(directory, name);
    // Positive control: a familyName keeping the name at 200 characters is taken.
    const kept = await patch(directory, id, 'name.familyName', 'E'.repeat(49));
    expect(kept.status).toBe(200);
    expect(kept.body.displayName).toBe(`${'G'.repeat(150)} ${'E'.repeat(49)}`);
    // One character more: 201.
    const refused = await patch(directory, id, 'name.familyName', 'E'.repeat(50));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ schemas: [ERROR_SCHEMA], scimType: 'invalidValue' });
    expect((await directory.call('GET', `/Users/${id}`)).body.displayName).toBe(
      `${'G'.repeat(150)} ${'E'.repeat(49)}`,
    );
  });
});
