import { ormConfig } from './src/db/orm.config.js';

/** For MikroORM's own CLI, which looks for this file: the service's one configuration (src/db/orm.config.ts). */
export default ormConfig(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/feedback');
