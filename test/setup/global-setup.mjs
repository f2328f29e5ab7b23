// Jest loads globalSetup outside its module system (no moduleNameMapper, no ESM transform), so this file stays plain
// ESM and lets swc-node load the TypeScript sources, exactly as `npm start` does.
import '@swc-node/register/esm-register';

export default async function globalSetup(globalConfig, projectConfig) {
  const { default: setup } = await import('./global-setup.ts');
  await setup(globalConfig, projectConfig);
}
