import 'reflect-metadata';
import fs from 'node:fs';
import { printAppSchema, SCHEMA_FILE } from '../src/graphql/schema-sdl.js';

fs.writeFileSync(SCHEMA_FILE, await printAppSchema());
console.log(`wrote ${SCHEMA_FILE}`);
