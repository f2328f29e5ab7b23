import type { AdminCommand } from './command.js';
import { required } from './command.js';
import { createBusiness } from '../modules/business/business.service.js';
import { presentBusiness } from '../modules/business/business.resolver.js';

export const createBusinessCommand: AdminCommand = {
  name: 'create-business',
  summary: 'Create a business owned by an existing user',
  usage: 'create-business --name N --owner USER_ID [--country CC] [--time-zone Area/City]',
  options: { name: { type: 'string' }, owner: { type: 'string' }, country: { type: 'string' }, 'time-zone': { type: 'string' } },
  async run(values, orm) {
    const { business, membership } = await createBusiness(orm.em.fork(), {
      name: required(values, 'name'),
      owner: required(values, 'owner'),
      country: values.country as string | undefined,
      timeZone: values['time-zone'] as string | undefined,
    });
    return { data: { ...presentBusiness(business), owner: membership.user }, object: 'business' };
  },
};
