import { demoRuntime } from './demo.js';
import { echoRuntime } from './echo.js';
import { modelRuntime } from './model/runtime.js';
import type { Runtime } from './types.js';

/**
 * The runtimes an agent can name in its `runtime` field. To plug in another kind of agent, implement
 * `Runtime` (see `types.ts`) and add it here under a new name.
 */
const runtimes: Record<string, Runtime> = {
  echo: echoRuntime,
  demo: demoRuntime,
  model: modelRuntime,
};

export function runtimeFor(name: string): Runtime | undefined {
  return Object.hasOwn(runtimes, name) ? runtimes[name] : undefined;
}
