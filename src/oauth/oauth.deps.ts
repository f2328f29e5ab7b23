import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { KeyStore, TokenService } from '../modules/oauth/index.js';
import type { FailureLimit } from '../http/rate-limit/rate-limits.js';
import type { Services } from '../kit/graphql/context.js';

/** What every OAuth route is built with (oauth.module.ts builds them): its own file, so no route imports the module back. */
export type OAuthDeps = { orm: MikroORM; config: Config; logger: Logger; services: Services; keys: KeyStore; tokens: TokenService; failures?: FailureLimit };
