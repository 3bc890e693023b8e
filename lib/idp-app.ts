import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IdpStack } from './idp-stack.js';

/**
 * The CDK app: the IDP stack, configured from context (`-c issuer=https://id.example.com`,
 * `-c secretPrefix=idp/`), checked by cdk-nag's AWS Solutions rules during synthesis. Any
 * finding that is neither fixed nor acknowledged with a reason fails the synthesis.
 */
export const createIdpApp = (props?: AppProps): { app: App; stack: IdpStack } => {
  const app = new App(props);
  const stack = new IdpStack(app, 'Idp', {
    issuer: app.node.tryGetContext('issuer'),
    secretPrefix: app.node.tryGetContext('secretPrefix'),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
};
