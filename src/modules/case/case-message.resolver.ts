import { Resolver } from 'type-graphql';
import { NestedCrudResolver } from '../business/index.js';
import { CaseMessageType } from './case-message.type.js';
import * as inputs from './case-message.inputs.js';
import * as messages from './case-message.service.js';

/** A case's thread: caseMessages(business, case), caseMessage(business, case, id), createCaseMessage(business, case, input). */
@Resolver(() => CaseMessageType)
export class CaseMessageResolver extends NestedCrudResolver('case', CaseMessageType, inputs, messages.crud, {
  names: ['caseMessage', 'caseMessages'],
  scope: 'cases',
  descriptions: {
    list: "A case's thread, oldest first unless orderBy says otherwise: the restaurant's replies (out) and the guest's SMS back (in).",
    create:
      "Replies to the case's guest by e-mail (or SMS when the guest left only a phone number, or `channel` says so), from the restaurant's name; sent by the workers, threaded. A guest who opted out of that channel: conflict, nothing sent. The first reply sets firstReplyAt and moves an open case to replied.",
  },
}) {}
