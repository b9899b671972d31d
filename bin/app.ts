/**
 * The CDK app (cdk.json "app"). Deploy-time options come from CDK context (cdk.json, or
 * `-c key=value`); cdk-nag's AwsSolutions pack checks every stack at synthesis and fails it on any
 * unacknowledged finding.
 */
import path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { serviceOptionsFromContext } from '../lib/stack/service-options.js';
import { VideoCreationServiceStack } from '../lib/stack/video-creation-service-stack.js';

const app = new App();
const options = serviceOptionsFromContext(app.node);

new VideoCreationServiceStack(app, options.stackName, {
  options,
  projectRoot: path.resolve(import.meta.dirname, '..'),
  description: 'Video Creation Service API v3',
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
