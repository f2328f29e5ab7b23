import { adminCommand, required } from './command.js';
import { createUser, presentUser } from '../modules/user/index.js';

export const createUserCommand = adminCommand({
  usage: 'create-user --email E --password P [--name N]',
  summary: 'Create a user who can sign in on the OAuth consent page',
  async run(values, em) {
    const user = await createUser(em, {
      email: required(values, 'email'),
      password: required(values, 'password'),
      name: values.name as string | undefined,
    });
    return { data: presentUser(user), object: 'user' };
  },
});
