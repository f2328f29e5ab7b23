/** The sending module's door: what other modules and the doors use of it. Its other files are its own. */
export { SendingBudgetResolver } from './sending-budget.resolver.js';
export { SendingBudgets } from './sending-budget.service.js';
export type { Reservation } from './sending-budget.service.js';
