import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  parseConfig,
  parseStoreConfig,
  perStoreSettings,
  reloadConfig,
} from '../../shared/config.js';

const deployed = { IDP_TABLE_NAME: 'idp', IDP_ISSUER: 'https://id.example.com' };

describe('configuration from the environment', () => {
  it('applies every default when only the required variables are set', () => {
    const config = parseConfig(deployed);
    expect(config).toMatchObject({
      tableName: 'idp',
      publicOrigin: 'https://id.example.com',
      audience: 'idp',
      logLevel: 'INFO',
      secretStore: { kind: 'file', directory: '.data/secrets' },
      tokenLifetimeSeconds: 3600,
      tokenClientCacheSeconds: 5,
      tokenAccessCacheSeconds: 30,
      passwordScryptLog2N: 17,
      awsTimeouts: { connectionMillis: 1000, requestMillis: 2500 },
      signIn: { codeSeconds: 60, attemptsPerAddressMinute: 20, invitationSeconds: 7 * 24 * 3600 },
      ses: undefined,
      corsOrigins: [],
    });
  });

  it('reads what is set', () => {
    const config = parseConfig({
      ...deployed,
      IDP_SECRET_STORE: 'aws',
      IDP_SECRET_PREFIX: 'prod/',
      IDP_LOG_LEVEL: 'DEBUG',
      IDP_CODE_TTL_SECONDS: '30',
      IDP_TOKEN_CLIENT_CACHE_SECONDS: '0',
      IDP_SES_SENDER: 'no-reply@example.com',
      IDP_CORS_ORIGINS: 'https://a.example.com, https://b.example.com:8443,',
    });
    expect(config.secretStore).toEqual({ kind: 'aws', prefix: 'prod/' });
    expect(config.logLevel).toBe('DEBUG');
    expect(config.signIn.codeSeconds).toBe(30);
    expect(config.tokenClientCacheSeconds).toBe(0);
    expect(config.ses).toEqual({ sender: 'no-reply@example.com' });
    expect(config.corsOrigins).toEqual(['https://a.example.com', 'https://b.example.com:8443']);
  });

  it('names every bad variable in one message', () => {
    const refuse = () =>
      parseConfig({
        IDP_ISSUER: 'https://id.example.com/',
        IDP_LOG_LEVEL: 'TRACE',
        IDP_TOKEN_TTL_SECONDS: '1.5',
        IDP_CODE_TTL_SECONDS: '61',
        IDP_TOKEN_ACCESS_CACHE_SECONDS: '31',
        IDP_DYNAMODB_ENDPOINT: 'not a url',
        IDP_CORS_ORIGINS: 'https://ok.example.com,http://bad.example.com/path',
      });
    expect(refuse).toThrow(ConfigurationError);
    expect(refuse).toThrow(
      [
        'Invalid configuration: IDP_TABLE_NAME: Required',
        'IDP_DYNAMODB_ENDPOINT: A URL such as http://127.0.0.1:8000',
        'IDP_TOKEN_TTL_SECONDS: A whole number, not "1.5"',
        'IDP_ISSUER: An origin such as https://id.example.com: scheme, host and port only, no trailing slash',
        'IDP_LOG_LEVEL: One of DEBUG, INFO, WARN, ERROR',
        'IDP_TOKEN_ACCESS_CACHE_SECONDS: From 0 to 30',
        'IDP_CODE_TTL_SECONDS: From 1 to 60',
        'IDP_CORS_ORIGINS: An origin such as https://id.example.com: scheme, host and port only, no trailing slash',
      ].join('; '),
    );
  });

  it.each(['-1', '', ' ', '1e3', '0x10', '9007199254740993'])(
    'refuses %j as a count of seconds, or takes it as unset',
    (text) => {
      const read = () => parseConfig({ ...deployed, IDP_SESSION_IDLE_SECONDS: text });
      // An empty variable is unset: the default applies.
      if (text === '') expect(read().signIn.sessionIdleSeconds).toBe(3600);
      else expect(read).toThrow(`IDP_SESSION_IDLE_SECONDS: A whole number, not ${JSON.stringify(text)}`);
    },
  );

  it('needs no public origin for the store and the operator CLI', () => {
    expect(parseStoreConfig({ IDP_TABLE_NAME: 'idp' }).tableName).toBe('idp');
    expect(() => parseStoreConfig({ IDP_TABLE_NAME: '' })).toThrow('IDP_TABLE_NAME: Required');
  });
});

describe('what is built from the store settings', () => {
  it('is built once, and again after the settings are read again for another store', () => {
    const built: string[] = [];
    const directoryOf = perStoreSettings((settings) => {
      built.push(settings.dataDirectory);
      return settings.dataDirectory;
    });
    const previous = process.env.IDP_DATA_DIR;
    try {
      process.env.IDP_DATA_DIR = '/tmp/first-store';
      reloadConfig();
      expect([directoryOf(), directoryOf()]).toEqual(['/tmp/first-store', '/tmp/first-store']);
      process.env.IDP_DATA_DIR = '/tmp/second-store';
      // Still the first store's until the settings are read again.
      expect(directoryOf()).toBe('/tmp/first-store');
      reloadConfig();
      expect(directoryOf()).toBe('/tmp/second-store');
      expect(built).toEqual(['/tmp/first-store', '/tmp/second-store']);
    } finally {
      if (previous === undefined) delete process.env.IDP_DATA_DIR;
      else process.env.IDP_DATA_DIR = previous;
      reloadConfig();
    }
  });
});
