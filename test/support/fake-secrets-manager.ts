import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

interface Call {
  operation: string;
  input: Record<string, unknown>;
}

/**
 * A stand-in for Secrets Manager's JSON API on localhost: the four operations the service uses,
 * with their real answers (ResourceNotFoundException, ResourceExistsException), failures a test
 * asks for, and every call recorded. It insists on a SigV4 `Authorization` header, as AWS does.
 */
export const startFakeSecretsManager = async () => {
  const secrets = new Map<string, { value: string; token?: string }>();
  const calls: Call[] = [];
  const failures = new Map<string, { name: string; times: number }>();

  const answer = (call: Call): [number, Record<string, unknown>] => {
    const failure = failures.get(call.operation);
    if (failure && failure.times > 0) {
      failure.times -= 1;
      return [400, { __type: `com.amazonaws.secretsmanager#${failure.name}`, message: failure.name }];
    }
    const { input } = call;
    const id = String(input.SecretId ?? input.Name);
    const existing = secrets.get(id);
    const notFound: [number, Record<string, unknown>] = [
      400,
      { __type: 'ResourceNotFoundException', message: 'none' },
    ];
    const exists: [number, Record<string, unknown>] = [
      400,
      { __type: 'ResourceExistsException', message: 'exists' },
    ];
    switch (call.operation) {
      case 'GetSecretValue':
        return existing ? [200, { Name: id, SecretString: existing.value }] : notFound;
      case 'CreateSecret':
        if (existing) return exists;
        secrets.set(id, { value: String(input.SecretString), token: input.ClientRequestToken as string });
        return [200, { Name: id }];
      case 'PutSecretValue':
        if (!existing) return notFound;
        if (
          input.ClientRequestToken &&
          input.ClientRequestToken === existing.token &&
          input.SecretString !== existing.value
        )
          return exists;
        secrets.set(id, { value: String(input.SecretString), token: input.ClientRequestToken as string });
        return [200, { Name: id }];
      case 'DeleteSecret':
        if (!existing) return notFound;
        if (input.ForceDeleteWithoutRecovery !== true) return [400, { __type: 'InvalidRequestException' }];
        secrets.delete(id);
        return [200, { Name: id }];
      default:
        return [400, { __type: 'InvalidAction', message: call.operation }];
    }
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const signed = /^AWS4-HMAC-SHA256 Credential=\S+\/secretsmanager\/aws4_request/.test(
        String(request.headers.authorization ?? ''),
      );
      const call = {
        operation: target.replace('secretsmanager.', ''),
        input: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
      };
      const [status, body] = signed ? answer(call) : [403, { __type: 'MissingAuthenticationTokenException' }];
      if (signed) calls.push(call);
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    secrets,
    calls: (operation?: string) => calls.filter((call) => !operation || call.operation === operation),
    /** The next `times` calls of `operation` fail with this error. */
    fail: (operation: string, name: string, times = Number.POSITIVE_INFINITY) =>
      failures.set(operation, { name, times }),
    forgetCalls: () => {
      calls.length = 0;
    },
    reset: () => {
      secrets.clear();
      calls.length = 0;
      failures.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/**
 * For a test file: the stand-in started before its tests, and the service's secret store pointed
 * at it (before the configuration is first read); answers a getter of the running stand-in.
 */
export const useFakeSecretsManager = () => {
  let running: Awaited<ReturnType<typeof startFakeSecretsManager>> | undefined;
  beforeAll(async () => {
    running = await startFakeSecretsManager();
    Object.assign(process.env, {
      IDP_SECRET_STORE: 'aws',
      IDP_SECRET_PREFIX: 'idp/',
      IDP_SECRETS_MANAGER_ENDPOINT: running.endpoint,
    });
  });
  afterAll(() => running?.close());
  return () => {
    if (!running) throw new Error('The Secrets Manager stand-in runs from beforeAll on');
    return running;
  };
};
