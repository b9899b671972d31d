/**
 * The customer-managed policies shared by the functions of route areas (`lib/access/function-access.ts`) and the
 * batch worker: one per grant, so functions with the same grant share one policy.
 */
import { Validations } from 'aws-cdk-lib';
import { type IManagedPolicy, ManagedPolicy } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { Grant } from '../../lambdas/core/grants.js';
import { type GrantTargets, grantAcknowledgements, grantStatements } from './grant-statements.js';

export interface AccessPoliciesProps {
  /** The grants to make policies of. */
  grants: Iterable<Grant>;
  targets: GrantTargets;
}

export class AccessPolicies extends Construct {
  /** Per grant; absent when there is nothing to grant (no job workflow, no Polly). */
  private readonly byGrant = new Map<Grant, IManagedPolicy>();

  constructor(scope: Construct, id: string, props: AccessPoliciesProps) {
    super(scope, id);
    for (const grant of new Set(props.grants)) {
      const statements = grantStatements(grant, props.targets);
      if (statements.length === 0) continue;
      const policy = new ManagedPolicy(this, grant, {
        description: `Grant ${grant} of lambdas/core/grants.ts`,
        statements,
      });
      const acknowledgements = grantAcknowledgements([grant], props.targets);
      if (acknowledgements.length > 0) Validations.of(policy).acknowledge(...acknowledgements);
      this.byGrant.set(grant, policy);
    }
  }

  /** The policies of these grants (those with something to grant). */
  policiesFor(grants: readonly Grant[]): IManagedPolicy[] {
    return grants.flatMap((grant) => {
      const policy = this.byGrant.get(grant);
      return policy ? [policy] : [];
    });
  }
}
