import { adminCommand, required } from './command.js';
import { createBusiness } from '../modules/member/index.js';
import { presentBusiness } from '../modules/business/index.js';

export const createBusinessCommand = adminCommand({
  usage: 'create-business --name N --owner USER_ID [--country CC] [--time-zone Area/City]',
  summary: 'Create a business owned by an existing user',
  async run(values, em) {
    const { business, membership } = await createBusiness(em, {
      name: required(values, 'name'),
      owner: required(values, 'owner'),
      country: values.country as string | undefined,
      timeZone: values['time-zone'] as string | undefined,
    });
    return { data: { ...presentBusiness(business), owner: membership.user }, object: 'business' };
  },
});
