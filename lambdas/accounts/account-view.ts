/** The account document of `GET /v3/users/me`: the owner, the billing type and its billing object. */
import type { Workspace } from './workspaces.js';

export function accountView(workspace: Workspace) {
  const billing =
    workspace.billing_type === 'wallet'
      ? {
          wallet: {
            currency: workspace.wallet_currency,
            remaining_balance: workspace.wallet_balance,
            auto_reload: { enabled: false },
          },
        }
      : workspace.billing_type === 'usage_based'
        ? {
            usage_based: {
              included_credits: workspace.included_credits,
              remaining_credits: workspace.remaining_credits,
            },
          }
        : {
            subscription: {
              plan: workspace.plan,
              credits: {
                // No reset date: this service does not renew credits on a schedule; admins set them.
                premium_credits: { remaining: workspace.remaining_credits },
              },
            },
          };
  return {
    username: workspace.owner.username,
    email: workspace.owner.email,
    first_name: workspace.owner.first_name,
    last_name: workspace.owner.last_name,
    workspace_id: workspace.workspace_id,
    workspace_name: workspace.name,
    billing_type: workspace.billing_type,
    ...billing,
    included_credits: workspace.included_credits,
    remaining_credits: workspace.remaining_credits,
  };
}
