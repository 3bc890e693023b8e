import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** A hosted page's route handler: the page answers the raw response itself. */
export const hostedPage =
  (answer: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>) =>
  async (_input: unknown, { event }: { event: APIGatewayProxyEventV2 }) => ({ raw: await answer(event) });
