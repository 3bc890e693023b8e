/**
 * Every setting of the service, read from the environment in one place and checked: a function
 * that starts with a missing or malformed variable fails at once, naming every bad variable. The
 * stack sets these for the deployed functions (lib/idp-stack.ts); `npm start` sets them for the
 * in-process functions (bin/local/service.ts); docs/operating.md, "Configuration" lists them.
 *
 * Plain readers rather than a Zod schema: every function reads its settings while it loads, and
 * the hundred-odd schema objects that took cost each cold start about 4 ms of CPU (`npm run
 * bench`). An empty variable counts as unset.
 */

export const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** What a reader throws for a value it refuses; `parsed` names the variable. */
class Refused extends Error {}

type Reader<T> = (text: string | undefined) => T;

const required =
  <T>(read: (text: string) => T): Reader<T> =>
  (text) => {
    if (text === undefined) throw new Refused('Required');
    return read(text);
  };

const optional =
  <T>(read: (text: string) => T): Reader<T | undefined> =>
  (text) =>
    text === undefined ? undefined : read(text);

const withDefault =
  <T>(read: (text: string) => T, fallback: T): Reader<T> =>
  (text) =>
    text === undefined ? fallback : read(text);

const anyText = (text: string) => text;

const integer =
  ({ min, max = Number.MAX_SAFE_INTEGER }: { min: number; max?: number }) =>
  (text: string): number => {
    const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value)) throw new Refused(`A whole number, not ${JSON.stringify(text)}`);
    if (value < min || value > max)
      throw new Refused(max === Number.MAX_SAFE_INTEGER ? `At least ${min}` : `From ${min} to ${max}`);
    return value;
  };

/** A duration in whole seconds, at most `max`. */
const seconds = (fallback: number, max?: number) =>
  withDefault(integer({ min: 0, ...(max === undefined ? {} : { max }) }), fallback);

const url = (text: string): string => {
  if (!URL.canParse(text)) throw new Refused('A URL such as http://127.0.0.1:8000');
  return text;
};

/** The public origin: `https://host[:port]`, nothing after it (tokens compare it as a string). */
const origin = (text: string): string => {
  if (!URL.canParse(text) || new URL(text).origin !== text)
    throw new Refused(
      'An origin such as https://id.example.com: scheme, host and port only, no trailing slash',
    );
  return text;
};

const oneOf =
  <const T extends string>(values: readonly T[]) =>
  (text: string): T => {
    const value = values.find((candidate) => candidate === text);
    if (value === undefined) throw new Refused(`One of ${values.join(', ')}`);
    return value;
  };

const originList = (text: string): string[] =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map(origin);

/** How long an AWS SDK call waits for a connection, and for a silent socket, before it tries again. */
const awsTimeoutSettings = {
  IDP_AWS_CONNECTION_TIMEOUT_MS: withDefault(integer({ min: 1 }), 1_000),
  IDP_AWS_REQUEST_TIMEOUT_MS: withDefault(integer({ min: 1 }), 2_500),
};

/** What the store and the operator CLI need: no public origin, as they write no URL. */
const storeSettings = {
  IDP_TABLE_NAME: required(anyText),
  IDP_DYNAMODB_ENDPOINT: optional(url),
  IDP_SECRET_STORE: withDefault(oneOf(['aws', 'file']), 'file'),
  IDP_SECRET_PREFIX: withDefault(anyText, 'idp/'),
  /** Tests only: a stand-in for Secrets Manager's API. */
  IDP_SECRETS_MANAGER_ENDPOINT: optional(url),
  IDP_DATA_DIR: withDefault(anyText, '.data'),
  IDP_TOKEN_TTL_SECONDS: seconds(3600),
  /** How long a browser session lasts at most, and an expired ID token is taken as a logout hint. */
  IDP_SESSION_ABSOLUTE_SECONDS: seconds(12 * 3600),
  IDP_CLIENT_SECRET_GRACE_SECONDS: seconds(24 * 3600),
  IDP_PICTURE_BUCKET: optional(anyText),
  IDP_OUTBOX_FILE: optional(anyText),
  ...awsTimeoutSettings,
};

/** Everything a function of the service needs. */
const settings = {
  ...storeSettings,
  IDP_ISSUER: required(origin),
  IDP_AUDIENCE: withDefault(anyText, 'idp'),
  IDP_LOG_LEVEL: withDefault(oneOf(LOG_LEVELS), 'INFO'),
  IDP_PRINCIPAL_CACHE_SECONDS: seconds(30),
  IDP_TOKEN_CLIENT_CACHE_SECONDS: seconds(5, 5),
  IDP_TOKEN_ACCESS_CACHE_SECONDS: seconds(30, 30),
  // Sign-in lifetimes (DECISIONS.md "Sign-in").
  IDP_CODE_TTL_SECONDS: withDefault(integer({ min: 1, max: 60 }), 60),
  IDP_USER_TOKEN_TTL_SECONDS: seconds(900),
  IDP_REFRESH_SLIDING_SECONDS: seconds(14 * 24 * 3600),
  IDP_REFRESH_ABSOLUTE_SECONDS: seconds(30 * 24 * 3600),
  IDP_SESSION_IDLE_SECONDS: seconds(3600),
  IDP_INVITATION_TTL_SECONDS: seconds(7 * 24 * 3600),
  IDP_RESET_TTL_SECONDS: seconds(3600),
  /**
   * log2 of scrypt's N for new password hashes: 17 is OWASP's minimum. Tests lower it to 15 (the
   * floor still verified) for speed; raising it rehashes everyone at their next sign-in.
   */
  IDP_PASSWORD_SCRYPT_LOG2_N: withDefault(integer({ min: 15, max: 18 }), 17),
  /** Sign-in attempts (passwords, codes, reset requests) per client IP address and minute. */
  IDP_SIGNIN_ATTEMPTS_PER_MINUTE: withDefault(integer({ min: 1 }), 20),
  /** Deployed: the SES identity emails are sent from; without it the outbox is the only record. */
  IDP_SES_SENDER: optional(anyText),
  /** Tests only: a stand-in for the SES API. */
  IDP_SES_ENDPOINT: optional(url),
  /**
   * Deployed with a sender: the mailer function the request functions hand emails to, invoked
   * asynchronously (functions/mailer.ts), so no answer waits for SES.
   */
  IDP_MAILER_FUNCTION: optional(anyText),
  /** Tests only: a stand-in for the Lambda API. */
  IDP_LAMBDA_ENDPOINT: optional(url),
  /** How long an instance trusts what it read about an origin (registered or not). */
  IDP_CORS_CACHE_SECONDS: seconds(30),
  /** Extra browser origins allowed to call the API besides registered applications' (comma-separated). */
  IDP_CORS_ORIGINS: withDefault(originList, []),
};

type Values<R extends Record<string, Reader<unknown>>> = { [K in keyof R]: ReturnType<R[K]> };

export interface StoreConfig {
  tableName: string;
  /** Local only: DynamoDB Local's address. */
  dynamoDbEndpoint: string | undefined;
  secretStore: { kind: 'aws'; prefix: string; endpoint?: string } | { kind: 'file'; directory: string };
  dataDirectory: string;
  tokenLifetimeSeconds: number;
  /**
   * How long a rotated signing key stays published by default: the longest a token it signed is
   * taken (an access token's lifetime, or an ID token's as a logout hint: the session's).
   */
  signingKeyRetainSeconds: number;
  clientSecretGraceSeconds: number;
  /** S3 bucket of user pictures (deployed); files under the data directory otherwise. */
  pictureBucket: string | undefined;
  /** Local only: a JSONL file that also receives each outbox message. */
  outboxFile: string | undefined;
  /** What every AWS SDK client waits for a connection and for a silent socket (milliseconds). */
  awsTimeouts: { connectionMillis: number; requestMillis: number };
}

export interface Config extends StoreConfig {
  /** The API's public origin: the token issuer, and the origin of every URL the service writes. */
  publicOrigin: string;
  audience: string;
  logLevel: (typeof LOG_LEVELS)[number];
  principalCacheSeconds: number;
  /** How long the token endpoint may use a client record it read (deletion takes effect after). */
  tokenClientCacheSeconds: number;
  /** How long the token endpoint may use the permissions it resolved for a set of grants. */
  tokenAccessCacheSeconds: number;
  signIn: {
    codeSeconds: number;
    userTokenSeconds: number;
    refreshSlidingSeconds: number;
    refreshAbsoluteSeconds: number;
    sessionIdleSeconds: number;
    sessionAbsoluteSeconds: number;
    invitationSeconds: number;
    resetSeconds: number;
    attemptsPerAddressMinute: number;
  };
  /** log2 of scrypt's N for new password hashes (r=8, p=1). */
  passwordScryptLog2N: number;
  /** Amazon SES delivery (deployed); undefined: emails go to the outbox (and locally its file). */
  ses: { sender: string; endpoint?: string } | undefined;
  /** The mailer function emails are handed to (deployed); it sends them through SES. */
  mailer: { functionName: string; endpoint?: string } | undefined;
  corsOrigins: string[];
  corsCacheSeconds: number;
}

/** Thrown when the environment cannot run the service; the message names every bad variable. */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

const parsed = <R extends Record<string, Reader<unknown>>>(
  readers: R,
  env: Record<string, string | undefined>,
): Values<R> => {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, read] of Object.entries(readers)) {
    const text = env[name];
    try {
      values[name] = read(text === '' ? undefined : text);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      problems.push(`${name}: ${error.message}`);
    }
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid configuration: ${problems.join('; ')}`);
  return values as Values<R>;
};

const storeConfigOf = (s: Values<typeof storeSettings>): StoreConfig => ({
  tableName: s.IDP_TABLE_NAME,
  dynamoDbEndpoint: s.IDP_DYNAMODB_ENDPOINT,
  secretStore:
    s.IDP_SECRET_STORE === 'aws'
      ? {
          kind: 'aws',
          prefix: s.IDP_SECRET_PREFIX,
          ...(s.IDP_SECRETS_MANAGER_ENDPOINT ? { endpoint: s.IDP_SECRETS_MANAGER_ENDPOINT } : {}),
        }
      : { kind: 'file', directory: `${s.IDP_DATA_DIR}/secrets` },
  dataDirectory: s.IDP_DATA_DIR,
  tokenLifetimeSeconds: s.IDP_TOKEN_TTL_SECONDS,
  signingKeyRetainSeconds: Math.max(s.IDP_TOKEN_TTL_SECONDS, s.IDP_SESSION_ABSOLUTE_SECONDS),
  clientSecretGraceSeconds: s.IDP_CLIENT_SECRET_GRACE_SECONDS,
  pictureBucket: s.IDP_PICTURE_BUCKET,
  outboxFile: s.IDP_OUTBOX_FILE,
  awsTimeouts: awsTimeoutsOf(s),
});

const awsTimeoutsOf = (s: Values<typeof awsTimeoutSettings>) => ({
  connectionMillis: s.IDP_AWS_CONNECTION_TIMEOUT_MS,
  requestMillis: s.IDP_AWS_REQUEST_TIMEOUT_MS,
});

/** Reads the settings of a function from an environment (pure: tests pass their own). */
export const parseConfig = (env: Record<string, string | undefined>): Config => {
  const s = parsed(settings, env);
  return {
    ...storeConfigOf(s),
    publicOrigin: s.IDP_ISSUER,
    audience: s.IDP_AUDIENCE,
    logLevel: s.IDP_LOG_LEVEL,
    principalCacheSeconds: s.IDP_PRINCIPAL_CACHE_SECONDS,
    tokenClientCacheSeconds: s.IDP_TOKEN_CLIENT_CACHE_SECONDS,
    tokenAccessCacheSeconds: s.IDP_TOKEN_ACCESS_CACHE_SECONDS,
    signIn: {
      codeSeconds: s.IDP_CODE_TTL_SECONDS,
      userTokenSeconds: s.IDP_USER_TOKEN_TTL_SECONDS,
      refreshSlidingSeconds: s.IDP_REFRESH_SLIDING_SECONDS,
      refreshAbsoluteSeconds: s.IDP_REFRESH_ABSOLUTE_SECONDS,
      sessionIdleSeconds: s.IDP_SESSION_IDLE_SECONDS,
      sessionAbsoluteSeconds: s.IDP_SESSION_ABSOLUTE_SECONDS,
      invitationSeconds: s.IDP_INVITATION_TTL_SECONDS,
      resetSeconds: s.IDP_RESET_TTL_SECONDS,
      attemptsPerAddressMinute: s.IDP_SIGNIN_ATTEMPTS_PER_MINUTE,
    },
    passwordScryptLog2N: s.IDP_PASSWORD_SCRYPT_LOG2_N,
    ses: s.IDP_SES_SENDER
      ? { sender: s.IDP_SES_SENDER, ...(s.IDP_SES_ENDPOINT ? { endpoint: s.IDP_SES_ENDPOINT } : {}) }
      : undefined,
    mailer: s.IDP_MAILER_FUNCTION
      ? {
          functionName: s.IDP_MAILER_FUNCTION,
          ...(s.IDP_LAMBDA_ENDPOINT ? { endpoint: s.IDP_LAMBDA_ENDPOINT } : {}),
        }
      : undefined,
    corsOrigins: s.IDP_CORS_ORIGINS,
    corsCacheSeconds: s.IDP_CORS_CACHE_SECONDS,
  };
};

export const parseStoreConfig = (env: Record<string, string | undefined>): StoreConfig =>
  storeConfigOf(parsed(storeSettings, env));

let current: Config | undefined;
let currentStore: StoreConfig | undefined;

/** The settings of this process, read once. */
export const config = (): Config => {
  current ??= parseConfig(process.env);
  return current;
};

/** The store's settings, read once: all the operator CLI needs. */
export const storeConfig = (): StoreConfig => {
  currentStore ??= current ?? parseStoreConfig(process.env);
  return currentStore;
};

let currentTimeouts: StoreConfig['awsTimeouts'] | undefined;

/**
 * The AWS SDK clients' timeouts, read once: alone, as a function that keeps no table (the audit
 * forwarder) has none of the store's settings.
 */
export const awsTimeouts = (): StoreConfig['awsTimeouts'] => {
  currentTimeouts ??=
    (currentStore ?? current)?.awsTimeouts ?? awsTimeoutsOf(parsed(awsTimeoutSettings, process.env));
  return currentTimeouts;
};

/**
 * Forgets what was read, so the next use reads the environment again: for the local server, which
 * learns its origin only after it listens, the operator CLI, which points the store at its target,
 * and tests that change a setting of a running service.
 */
export const reloadConfig = (): void => {
  current = undefined;
  currentStore = undefined;
  currentTimeouts = undefined;
};

/**
 * Something built from the store's settings (a client, an adapter, a cache of what the store
 * holds), built again after they are read again: the operator CLI and tests re-point the store
 * (`reloadConfig()`), and what was built for the old one must not serve the new. A deployed
 * function reads its settings once, so it builds once.
 */
export const perStoreSettings = <T>(build: (settings: StoreConfig) => T): (() => T) => {
  let built: { settings: StoreConfig; value: T } | undefined;
  return () => {
    const settings = storeConfig();
    if (built?.settings !== settings) built = { settings, value: build(settings) };
    return built.value;
  };
};

/** The log level alone, for the logger, which is created before anything else is needed. */
export const logLevelOf = (env: Record<string, string | undefined>): Config['logLevel'] =>
  LOG_LEVELS.find((level) => level === env.IDP_LOG_LEVEL) ?? 'INFO';
