// The end-to-end project's global setup: the pool of shared deployments, in jest's main process (see
// libs/testing/src/shared-deployments.ts). Imported by relative path: global setup runs before module mapping applies.
import { startDeploymentPool, type DeploymentPool } from '../../libs/testing/src/shared-deployments';

declare global {
  var strataDeploymentPool: DeploymentPool | undefined;
}

export default async function globalSetup(): Promise<void> {
  globalThis.strataDeploymentPool = await startDeploymentPool();
}
