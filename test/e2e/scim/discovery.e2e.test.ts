import { describe, expect, it } from 'vitest';
import {
  connectDirectory,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  LIST_RESPONSE,
  type ScimBody,
  USER_SCHEMA,
} from '../../support/scim.js';
import { useFixture, useService } from '../../support/service.js';

/**
 * SCIM's discovery endpoints (RFC 7643 sections 5 to 7, RFC 7644 section 4): what they describe
 * matches what the server answers, and a filter on them is refused.
 */
const service = useService();
const admin = useFixture(() => service.freshOrganization());

const DISCOVERY = [
  '/ServiceProviderConfig',
  '/ResourceTypes',
  '/ResourceTypes/User',
  '/Schemas',
  `/Schemas/${USER_SCHEMA}`,
];

interface Attribute {
  name: string;
  description: string;
  mutability: string;
  subAttributes?: Attribute[];
}

/** Every attribute of a schema, sub-attributes included, as `name` and `parent.name`. */
const flatten = (attributes: readonly Attribute[], parent = ''): [string, Attribute][] =>
  attributes.flatMap((attribute): [string, Attribute][] => {
    const name = `${parent}${attribute.name}`;
    return [[name, attribute], ...flatten(attribute.subAttributes ?? [], `${name}.`)];
  });

describe('SCIM discovery', () => {
  it('describes the two resource types, each by a schema /Schemas answers, at its own location', async () => {
    const directory = await connectDirectory(service, admin);
    const types = await directory.call('GET', '/ResourceTypes');
    expect(types.body).toMatchObject({ schemas: [LIST_RESPONSE], totalResults: 2 });
    const schemas = await directory.call('GET', '/Schemas');
    const schemaIds = (schemas.body.Resources as ScimBody[]).map((schema) => schema.id);
    expect(schemaIds).toEqual([USER_SCHEMA, GROUP_SCHEMA]);
    for (const type of types.body.Resources as ScimBody[]) {
      expect(schemaIds).toContain(type.schema);
      for (const document of [type, ...(schemas.body.Resources as ScimBody[])]) {
        const location = new URL(document.meta.location);
        const again = await directory.call('GET', location.pathname.replace(/^\/scim\/v2/, ''));
        expect(again.body, location.pathname).toEqual(document);
      }
    }
    const config = await directory.call('GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      sort: { supported: false },
      etag: { supported: false },
      changePassword: { supported: false },
    });
  });

  it('describes every attribute, and every attribute a User or Group shows is described', async () => {
    const directory = await connectDirectory(service, admin);
    const userName = `discovered-${Date.now()}@discovery.example`;
    const user = await directory.call('POST', '/Users', { schemas: [USER_SCHEMA], userName });
    const group = await directory.call('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: `Discovered ${Date.now()}`,
      members: [{ value: user.body.id }],
    });
    const shown = {
      [USER_SCHEMA]: (await directory.call('GET', `/Users/${user.body.id}`)).body,
      [GROUP_SCHEMA]: group.body,
    };
    for (const schema of (await directory.call('GET', '/Schemas')).body.Resources as ScimBody[]) {
      const attributes = new Map(flatten(schema.attributes));
      for (const [name, attribute] of attributes)
        expect(attribute.description.length, `${schema.id} ${name}`).toBeGreaterThan(10);
      const resource = shown[schema.id as keyof typeof shown] as ScimBody;
      for (const name of Object.keys(resource).filter((key) => !['schemas', 'id', 'meta'].includes(key)))
        expect(attributes.has(name), `${schema.id} shows ${name}`).toBe(true);
    }
  });

  it('says that emails are not written: a User keeps userName as its one email, whatever is sent', async () => {
    const directory = await connectDirectory(service, admin);
    const schema = (await directory.call('GET', `/Schemas/${USER_SCHEMA}`)).body;
    const attributes = new Map(flatten(schema.attributes));
    expect(attributes.get('emails')?.mutability).toBe('readOnly');
    expect(attributes.get('userName')?.mutability).toBe('readWrite');
    const userName = `emails-${Date.now()}@discovery.example`;
    const created = await directory.call('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName,
      emails: [{ value: 'another@discovery.example', type: 'home', primary: true }],
    });
    expect(created.status).toBe(201);
    expect(created.body.emails).toEqual([{ value: userName, type: 'work', primary: true }]);
  });

  it('answers /Me and /Bulk, which it does not offer, with 501 in the error shape, after authenticating', async () => {
    const directory = await connectDirectory(service, admin);
    const config = (await directory.call('GET', '/ServiceProviderConfig')).body;
    expect(config.bulk.supported).toBe(false);
    const bulk = { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [] };
    for (const [method, path, body] of [
      ['GET', '/Me', undefined],
      ['POST', '/Me', { schemas: [USER_SCHEMA], userName: 'me@discovery.example' }],
      ['PUT', '/Me', { schemas: [USER_SCHEMA], userName: 'me@discovery.example' }],
      ['PATCH', '/Me', { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [] }],
      ['DELETE', '/Me', undefined],
      ['POST', '/Bulk', bulk],
    ] as const) {
      const answer = await directory.call(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(501);
      expect(answer.body, `${method} ${path}`).toMatchObject({ schemas: [ERROR_SCHEMA], status: '501' });
      expect(answer.headers.get('content-type')).toContain('application/scim+json');
    }
    // Authentication comes first, as on every SCIM route.
    const anonymous = await service.call<ScimBody>('GET', '/scim/v2/Me');
    expect(anonymous.status).toBe(401);
  });

  it('refuses a filter on every discovery endpoint with 403; the same request without one is answered', async () => {
    const directory = await connectDirectory(service, admin);
    const filter = `filter=${encodeURIComponent('name eq "User"')}`;
    for (const path of DISCOVERY) {
      expect((await directory.call('GET', `${path}?attributes=name`)).status, path).toBe(200);
      const refused = await directory.call('GET', `${path}?${filter}`);
      expect(refused.status, path).toBe(403);
      expect(refused.body, path).toMatchObject({ schemas: [ERROR_SCHEMA], status: '403' });
    }
  });
});
