import { describe, expect, it } from 'vitest';
import { configureTarget, UsageError } from '../../bin/admin/target.js';

describe('operator CLI target', () => {
  it('defaults to the DynamoDB Local and secret files of npm start', () => {
    const env: NodeJS.ProcessEnv = { IDP_DYNAMODB_PORT: '8123', AWS_PROFILE: 'production' };
    const target = configureTarget({}, env);
    expect(target).toEqual({ description: 'local DynamoDB at http://localhost:8123', local: true });
    expect(env).toMatchObject({
      IDP_TABLE_NAME: 'idp',
      IDP_DYNAMODB_ENDPOINT: 'http://localhost:8123',
      IDP_SECRET_STORE: 'file',
      AWS_ACCESS_KEY_ID: 'local',
    });
    expect(env.IDP_DATA_DIR).toMatch(/\.data$/);
    // A shell's AWS profile never reaches a local run.
    expect(env.AWS_PROFILE).toBeUndefined();
  });

  it('with --table: that table, Secrets Manager under the prefix, no local endpoint', () => {
    const env: NodeJS.ProcessEnv = { IDP_DYNAMODB_ENDPOINT: 'http://localhost:8000' };
    const target = configureTarget(
      { table: 'Idp-Table', region: 'eu-west-1', secretPrefix: 'idp-staging/' },
      env,
    );
    expect(target.local).toBe(false);
    expect(env).toEqual({
      IDP_TABLE_NAME: 'Idp-Table',
      AWS_REGION: 'eu-west-1',
      IDP_SECRET_STORE: 'aws',
      IDP_SECRET_PREFIX: 'idp-staging/',
    });
    expect(configureTarget({ table: 't' }, { AWS_REGION: 'us-east-2' }).description).toBe(
      'table t in us-east-2',
    );
  });

  it('refuses a deployed table without a region, and --endpoint with --table', () => {
    expect(() => configureTarget({ table: 't' }, {})).toThrow(UsageError);
    expect(() => configureTarget({ table: 't', region: 'r', endpoint: 'http://x' }, {})).toThrow(
      '--endpoint is for the local DynamoDB only',
    );
  });
});
