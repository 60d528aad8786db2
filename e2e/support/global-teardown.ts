// Stops the shared deployments the run started (see global-setup.ts).
export default async function globalTeardown(): Promise<void> {
  await globalThis.strataDeploymentPool?.stop();
}
