import '@swc-node/register/esm-register';

export default async function globalTeardown() {
  const { default: teardown } = await import('./global-teardown.ts');
  await teardown();
}
