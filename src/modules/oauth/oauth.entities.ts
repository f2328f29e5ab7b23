import { SigningKey } from './signing-key.entity.js';
import { OAuthToken } from './oauth-token.entity.js';
import { AuthorizationCode } from './authorization-code.entity.js';
import { SignInThrottle } from './sign-in-throttle.entity.js';

export const oauthEntities = [SigningKey, OAuthToken, AuthorizationCode, SignInThrottle];
