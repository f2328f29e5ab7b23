import type Router from '@koa/router';
import type { OAuthDeps } from './oauth.module.js';

export function authorizeRoutes(_router: Router, _deps: OAuthDeps) {}
