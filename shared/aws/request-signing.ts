import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * AWS calls the functions send signed by the AWS SDK's own SigV4 signer, where a service's SDK
 * client would cost the bundle and each call far more than the few operations need (README,
 * "Performance"): DynamoDB (shared/store/dynamodb-client.ts), and with fetch S3 for pictures,
 * Secrets Manager for secrets and SES for email.
 */

/** Lambda hands every function its role's temporary credentials in these variables. */
export const credentialsFromEnvironment = async () => {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN } = process.env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) throw new Error('No AWS credentials in the environment');
  return {
    accessKeyId: AWS_ACCESS_KEY_ID,
    secretAccessKey: AWS_SECRET_ACCESS_KEY,
    ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
  };
};

/** A SigV4 signer for one service in the function's region, with the role's credentials. */
export const signerFor = (service: string, region: string, options: { uriEscapePath?: boolean } = {}) =>
  new SignatureV4({
    service,
    region,
    // The SDK's own SHA-256 (node:crypto underneath), which the signer expects.
    sha256: Sha256,
    credentials: credentialsFromEnvironment,
    ...options,
  });

/** Signs and sends one request; fetch sets `Host` itself, to the value signed. */
export const signedFetch = async (
  signer: SignatureV4,
  url: URL,
  request: { method: string; headers?: Record<string, string>; body?: string | Uint8Array },
): Promise<Response> => {
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: { host: url.host, ...request.headers },
    body: request.body,
  });
  const { host: _host, ...headers } = signed.headers;
  return fetch(url, { method: request.method, headers, ...(request.body ? { body: request.body } : {}) });
};
