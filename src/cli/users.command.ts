import type { AdminCommand } from './command.js';
import { required } from './command.js';
import { createUser, presentUser } from '../modules/user/user.service.js';

export const createUserCommand: AdminCommand = {
  name: 'create-user',
  summary: 'Create a user who can sign in on the OAuth consent page',
  usage: 'create-user --email E --password P [--name N]',
  options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
  async run(values, orm) {
    const user = await createUser(orm.em.fork(), {
      email: required(values, 'email'),
      password: required(values, 'password'),
      name: values.name as string | undefined,
    });
    return { data: presentUser(user), object: 'user' };
  },
};
