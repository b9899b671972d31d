/**
 * IAM statements and cdk-nag acknowledgements shared by the API's capability policies
 * (`access-policies.ts`), the workflow task functions (`workflow-task-functions.ts`) and the catalog
 * publisher (`catalog-publisher.ts`), so each privilege is written once.
 */
import { Aws } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';

/** What S3 and SQS need from the caller to use the stack key on its behalf (SSE-KMS). */
export const ENVELOPE_KEY_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** Every customer-managed key a workspace may name: keys of the stack's region, in any account. */
export function customerKeyArns(): string {
  return `arn:${Aws.PARTITION}:kms:${Aws.REGION}:*:key/*`;
}

/** Only through S3 of the stack's region: how media writes and reads use a customer key. */
export function viaS3Condition(): Record<string, Record<string, string>> {
  return { StringEquals: { 'kms:ViaService': `s3.${Aws.REGION}.${Aws.URL_SUFFIX}` } };
}

/** The cdk-nag finding id of a statement on {@link customerKeyArns}. */
export const CUSTOMER_KEYS_FINDING =
  'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:kms:<AWS::Region>:*:key/*]';

export const CUSTOMER_KEYS_REASON =
  "Workspaces bring their own KMS keys (set at run time by an administrator, possibly in another account), so no key ARN is known at deploy time; the resource is limited to keys of the stack's region and every use but the metadata-only kms:DescribeKey is conditioned (kms:ViaService S3, or the setup check's encryption context). Each key's own key policy must also allow this account.";

/** What the Amazon Polly speech engine calls (lambdas/engines/speech/polly-engine.ts). */
export const SPEECH_SYNTHESIS_ACTIONS = ['polly:SynthesizeSpeech', 'polly:DescribeVoices'] as const;

/** Amazon Polly, for functions that synthesize speech when the deployment's engine is `polly`. */
export function speechSynthesisStatements(): PolicyStatement[] {
  return [new PolicyStatement({ actions: [...SPEECH_SYNTHESIS_ACTIONS], resources: ['*'] })];
}

/** Why {@link speechSynthesisStatements} name every resource (cdk-nag `AwsSolutions-IAM5[Resource::*]`). */
export const SPEECH_SYNTHESIS_WILDCARD_REASON =
  'Amazon Polly: polly:SynthesizeSpeech and polly:DescribeVoices act on no resource (the service uses no pronunciation lexicons), so IAM only accepts "*" for them.';
