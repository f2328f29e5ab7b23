import { Migration20261121184919 } from './Migration20261121184919.js';
import { Migration20261121185244 } from './Migration20261121185244.js';
import { Migration20261121192553 } from './Migration20261121192553.js';
import { Migration20261123154606 } from './Migration20261123154606.js';
import { Migration20261123160000 } from './Migration20261123160000.js';
import { Migration20261123162403 } from './Migration20261123162403.js';
import { Migration20261123175500 } from './Migration20261123175500.js';
import { Migration20261123175513 } from './Migration20261123175513.js';
import { Migration20261123175616 } from './Migration20261123175616.js';
import { Migration20261123175708 } from './Migration20261123175708.js';
import { Migration20261123175838 } from './Migration20261123175838.js';
import { Migration20261123182218 } from './Migration20261123182218.js';
import { Migration20261123231000 } from './Migration20261123231000.js';
import { Migration20261124060000 } from './Migration20261124060000.js';
import { Migration20261124090000 } from './Migration20261124090000.js';
import { Migration20261125150000 } from './Migration20261125150000.js';
import { Migration20261125150333 } from './Migration20261125150333.js';
import { Migration20261125174500 } from './Migration20261125174500.js';
import { Migration20261126231900 } from './Migration20261126231900.js';
import { Migration20261127004500 } from './Migration20261127004500.js';
import { Migration20261127005000 } from './Migration20261127005000.js';
import { Migration20261127045125 } from './Migration20261127045125.js';

/** Applied in this order at start. Add each new migration (npm run migration:create) here. */
export const migrationsList = [
  { name: 'Migration20261121184919', class: Migration20261121184919 },
  { name: 'Migration20261121185244', class: Migration20261121185244 },
  { name: 'Migration20261121192553', class: Migration20261121192553 },
  { name: 'Migration20261123154606', class: Migration20261123154606 },
  { name: 'Migration20261123160000', class: Migration20261123160000 },
  { name: 'Migration20261123162403', class: Migration20261123162403 },
  { name: 'Migration20261123175500', class: Migration20261123175500 },
  { name: 'Migration20261123175513', class: Migration20261123175513 },
  { name: 'Migration20261123175616', class: Migration20261123175616 },
  { name: 'Migration20261123175708', class: Migration20261123175708 },
  { name: 'Migration20261123175838', class: Migration20261123175838 },
  { name: 'Migration20261123182218', class: Migration20261123182218 },
  { name: 'Migration20261123231000', class: Migration20261123231000 },
  { name: 'Migration20261124060000', class: Migration20261124060000 },
  { name: 'Migration20261124090000', class: Migration20261124090000 },
  { name: 'Migration20261125150000', class: Migration20261125150000 },
  { name: 'Migration20261125150333', class: Migration20261125150333 },
  { name: 'Migration20261125174500', class: Migration20261125174500 },
  { name: 'Migration20261126231900', class: Migration20261126231900 },
  { name: 'Migration20261127004500', class: Migration20261127004500 },
  { name: 'Migration20261127005000', class: Migration20261127005000 },
  { name: 'Migration20261127045125', class: Migration20261127045125 },
];
