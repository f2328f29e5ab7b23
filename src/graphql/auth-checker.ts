import type { AuthChecker } from 'type-graphql';
import { AppError } from '../shared/errors.js';
import type { Scope } from '../auth/scopes.js';
import type { GraphQLContext } from '../kit/graphql/context.js';
import { scopesForRole } from '../auth/roles.js';

/**
 * `@Authorized('surveys:read')` on an operation: a verified token is required (UNAUTHENTICATED otherwise), its
 * business must be the operation's `business` argument and its scopes must include the one named (FORBIDDEN).
 * Every business-scoped operation takes `business: ID!`, so tenant isolation is checked here, once, for all of them.
 */
export const authChecker: AuthChecker<GraphQLContext, Scope> = ({ context, args }, scopes) => {
  const principal = context.auth;
  if (!principal) {
    throw context.authError ?? new AppError('unauthorized', 'An access token is required: Authorization: Bearer <token>');
  }
  if (typeof args.business === 'string' && args.business !== principal.businessId) {
    throw new AppError('forbidden', `This token does not grant access to business '${args.business}'`);
  }
  const missing = scopes.filter((scope) => !principal.scopes.has(scope));
  // Scopes the user's role withholds (src/auth/roles.ts), whether or not the token was issued with them: say so,
  // since a new token would not help.
  const allowed = principal.role ? scopesForRole(principal.role) : undefined;
  const beyondRole = allowed ? missing.filter((scope) => !allowed.includes(scope)) : [];
  if (beyondRole.length) {
    const why = beyondRole.includes('members:write') ? ': only owners change members' : '';
    throw new AppError('forbidden', `Your role in this business (${principal.role}) does not allow ${beyondRole.join(', ')}${why}`);
  }
  if (missing.length) {
    throw new AppError('forbidden', `This token lacks the scope ${missing.join(', ')}`);
  }
  return true;
};
