/**
 * IAM in the local stack: every AWS call a function makes is checked against exactly the statements
 * its role gets in the CDK stack (`lib/access/function-access.ts` → `lib/access/grant-policies.ts`),
 * and refused as AWS refuses it when they do not allow it.
 *
 * The local stack runs every function in one process, so the caller is known by context: the local
 * API Gateway, the Step Functions emulator, the queue pollers and the catalog publication run each
 * function's code inside {@link LocalAccessEnforcement.runAs}, and a middleware on every SDK client
 * (installed through `useClientPlugins` of lambdas/core/aws-clients.ts) reads it. Calls outside any
 * function (the local stack setting itself up, the admin CLI, tests) act as the operator: unchecked.
 *
 * What is checked: each call's actions and resources (`lib/access/sdk-calls.ts`), with the condition
 * keys the grants use: `kms:ViaService` when S3 or SQS use a key for the caller (SSE-KMS writes and
 * reads, encrypted queues), `kms:EncryptionContext:*` of KMS calls, `s3:prefix` of listings. S3's
 * 403-instead-of-404 for a missing object without `s3:ListBucket` is reproduced. Presigned URLs are
 * checked when signed (AWS checks them when used: either way a URL the role cannot use fails). Not
 * checked: key policies (the stack's keys let the account's IAM policies decide, which this checks),
 * and the media bucket's TLS-only policy (every local endpoint is plain HTTP on loopback).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { EventBridgeServiceException } from '@aws-sdk/client-eventbridge';
import { KMSServiceException } from '@aws-sdk/client-kms';
import { PollyServiceException } from '@aws-sdk/client-polly';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { SFNServiceException } from '@aws-sdk/client-sfn';
import { SQSServiceException } from '@aws-sdk/client-sqs';
import type { ClientPlugin } from '../../lambdas/core/aws-clients.js';
import type { Grant } from '../../lambdas/core/grants.js';
import type { ServiceFunctionName } from '../access/function-access.js';
import { type GrantResources, type GrantStatement, grantsPolicy } from '../access/grant-policies.js';
import { type AccessRequest, isAllowed } from '../access/policy-evaluation.js';
import {
  accessRequestsAfter,
  accessRequestsBefore,
  operationOfCommand,
  type ResourceNaming,
  SERVICE_OF_CLIENT,
} from '../access/sdk-calls.js';

/** A function's execution role, as the local stack enforces it. */
export interface LocalFunctionRole {
  function: ServiceFunctionName;
  grants: readonly Grant[];
  statements: readonly GrantStatement[];
}

/** A call the local stack refused. */
export interface AccessDenial {
  function: ServiceFunctionName;
  action: string;
  resource: string;
  /** The error's message, as AWS words it. */
  message: string;
}

type ServiceExceptionClass = new (options: {
  name: string;
  $fault: 'client';
  $metadata: { httpStatusCode: number };
  message: string;
}) => Error;

/** How each service answers a call IAM refuses: the SDK's exception of that service, as it deserializes it. */
const ACCESS_DENIED_BY_SERVICE: Readonly<
  Record<string, { exception: ServiceExceptionClass; name: string; status: number }>
> = {
  dynamodb: { exception: DynamoDBServiceException, name: 'AccessDeniedException', status: 400 },
  s3: { exception: S3ServiceException, name: 'AccessDenied', status: 403 },
  kms: { exception: KMSServiceException, name: 'AccessDeniedException', status: 400 },
  states: { exception: SFNServiceException, name: 'AccessDeniedException', status: 400 },
  sqs: { exception: SQSServiceException, name: 'AccessDenied', status: 403 },
  events: { exception: EventBridgeServiceException, name: 'AccessDeniedException', status: 400 },
  polly: { exception: PollyServiceException, name: 'AccessDeniedException', status: 400 },
};

/** S3's answer for a missing object, which a caller without s3:ListBucket gets as 403 instead. */
const S3_MISSING_OBJECT = new Set(['NotFound', 'NoSuchKey']);

export interface LocalAccessEnforcementOptions {
  /** Every function's grants. */
  functions: ReadonlyMap<ServiceFunctionName, readonly Grant[]>;
  /** The local stack's resources, as the grants name them. */
  resources: GrantResources;
  naming: ResourceNaming;
  /** The account the roles belong to (in the error messages). */
  account: string;
}

export class LocalAccessEnforcement {
  private readonly roles: ReadonlyMap<ServiceFunctionName, LocalFunctionRole>;
  private readonly caller = new AsyncLocalStorage<LocalFunctionRole>();
  private readonly refused: AccessDenial[] = [];

  constructor(private readonly options: LocalAccessEnforcementOptions) {
    this.roles = new Map(
      [...options.functions].map(([name, grants]) => [
        name,
        { function: name, grants, statements: grantsPolicy(grants, options.resources) },
      ]),
    );
  }

  /** Calls refused so far, oldest first. */
  get denials(): readonly AccessDenial[] {
    return this.refused;
  }

  role(name: ServiceFunctionName): LocalFunctionRole {
    const role = this.roles.get(name);
    if (!role) throw new Error(`The stack has no function ${name} (lib/access/function-access.ts)`);
    return role;
  }

  /** Runs `work` as function `name`: every AWS call it makes is checked against that function's role. */
  runAs<Result>(name: ServiceFunctionName, work: () => Result): Result {
    return this.caller.run(this.role(name), work);
  }

  /** The middleware of every client: checks calls made inside {@link runAs}. */
  plugin(): ClientPlugin {
    return {
      applyToStack: (stack) => {
        stack.add(
          (next, context) => async (args) => {
            const role = this.caller.getStore();
            if (!role) return next(args);
            const service = SERVICE_OF_CLIENT[String(context.clientName)];
            if (!service)
              throw new Error(`The local IAM check does not know the client ${context.clientName}`);
            const operation = operationOfCommand(String(context.clientName), String(context.commandName));
            const input = args.input as Record<string, unknown>;
            const { naming } = this.options;
            this.enforce(role, service, accessRequestsBefore(service, operation, input, naming));
            let result: Awaited<ReturnType<typeof next>>;
            try {
              result = await next(args);
            } catch (error) {
              throw this.missingObjectAsS3Does(role, service, input, error);
            }
            const output = (result.output ?? {}) as Record<string, unknown>;
            this.enforce(role, service, accessRequestsAfter(service, operation, input, output, naming));
            return result;
          },
          { step: 'initialize', name: 'localAccessEnforcement', priority: 'high' },
        );
      },
    };
  }

  private enforce(role: LocalFunctionRole, service: string, requests: readonly AccessRequest[]): void {
    const refused = requests.find((request) => !isAllowed(role.statements, request));
    if (refused) throw this.denial(role, service, refused);
  }

  /** S3 answers 403, not 404, for a missing object to a caller that may not list the bucket. */
  private missingObjectAsS3Does(
    role: LocalFunctionRole,
    service: string,
    input: Record<string, unknown>,
    error: unknown,
  ): unknown {
    if (service !== 's3' || !(error instanceof Error) || !S3_MISSING_OBJECT.has(error.name)) return error;
    const listing: AccessRequest = {
      action: 's3:ListBucket',
      resource: this.options.naming.bucketArn(String(input.Bucket)),
      context: { 's3:prefix': String(input.Key) },
    };
    return isAllowed(role.statements, listing) ? error : this.denial(role, service, listing);
  }

  /** The error AWS answers, worded as AWS words it, recorded in {@link denials}. */
  private denial(role: LocalFunctionRole, service: string, request: AccessRequest): Error {
    const roleName = `local-${role.function.replace(/[^\w+=,.@-]/g, '-')}`;
    const message =
      `User: arn:aws:sts::${this.options.account}:assumed-role/${roleName}/${roleName} is not authorized to perform: ` +
      `${request.action} on resource: ${request.resource} because no identity-based policy allows the ${request.action} action`;
    this.refused.push({
      function: role.function,
      action: request.action,
      resource: request.resource,
      message,
    });
    const answer = ACCESS_DENIED_BY_SERVICE[service];
    if (!answer) return Object.assign(new Error(message), { name: 'AccessDeniedException' });
    return new answer.exception({
      name: answer.name,
      $fault: 'client',
      $metadata: { httpStatusCode: answer.status },
      message,
    });
  }
}

/** ARNs of the local stack's resources, as the emulators form them. */
export function localResourceNaming(options: {
  region: string;
  account: string;
  /** The ARN of the key an id, key ARN, alias or alias ARN names (the local KMS's), if any. */
  resolveKeyArn: (reference: string) => string | undefined;
  /** Every local queue is encrypted with the stack key, as the deployed ones are. */
  queueKeyArn: string;
}): ResourceNaming {
  const { region, account, resolveKeyArn } = options;
  return {
    viaService: (service) => `${service}.${region}.amazonaws.com`,
    tableArn: (name) => `arn:aws:dynamodb:${region}:${account}:table/${name}`,
    bucketArn: (name) => `arn:aws:s3:::${name}`,
    // Local queue URLs are `<endpoint>/<account>/<name>`, as AWS's are.
    queueArn: (url) => {
      const [queueAccount, name] = new URL(url).pathname.split('/').filter(Boolean);
      return `arn:aws:sqs:${region}:${queueAccount ?? account}:${name}`;
    },
    queueKeyArn: () => options.queueKeyArn,
    // IAM authorizes a call that names an alias against the key the alias points at. A reference to
    // no local key (another account's, or none) is judged as named.
    keyArn: (keyId) =>
      resolveKeyArn(keyId) ??
      (keyId.startsWith('arn:')
        ? keyId
        : `arn:aws:kms:${region}:${account}:${keyId.startsWith('alias/') ? keyId : `key/${keyId}`}`),
    eventBusArn: (nameOrArn) =>
      nameOrArn?.startsWith('arn:')
        ? nameOrArn
        : `arn:aws:events:${region}:${account}:event-bus/${nameOrArn ?? 'default'}`,
  };
}
