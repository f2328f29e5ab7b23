import '@swc-node/register/esm-register';

export default async function globalTeardown(globalConfig, projectConfig) {
  const { default: teardown } = await import('./global-teardown.ts');
  await teardown(globalConfig, projectConfig);
}
