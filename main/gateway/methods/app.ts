/** Gateway methods about the app itself: `models.list` (every model, and whether a key is there for it), `app.info`. */
import { takesImages } from '../../providers/types.js';
import type { AuthPool } from '../../auth/pool.js';
import type { AppConfig } from '../../engine/config/schema.js';
import { defaultModelRef, effectiveContextTokens, listModels } from '../../engine/models.js';
import { parseParams } from '../params.js';

export interface AppMethodsContext {
  config: AppConfig;
  auth: AuthPool;
  env: NodeJS.ProcessEnv;
  home: string;
  version: string;
  /** The current workspace (Settings can change it). */
  workspace: () => string;
}

export function appMethods({ config, auth, env, home, version, workspace }: AppMethodsContext) {
  return {
    async 'models.list'(raw: unknown) {
      parseParams('models.list', raw);
      const keyed = new Map<string, Promise<boolean>>(); // one look-up per provider (env, then the keychain)
      return Promise.all(
        listModels(config).map(async (m) => {
          if (!keyed.has(m.provider)) keyed.set(m.provider, auth.hasKey(m));
          return {
            ref: `${m.provider}/${m.id}`,
            provider: m.provider,
            id: m.id,
            contextWindow: effectiveContextTokens(m, config), // the meter's window is the one the engine plans with
            reasoning: m.reasoning,
            ...(m.cost ? { cost: m.cost } : {}),
            demo: m.api === 'demo',
            images: takesImages(m),
            hasKey: await keyed.get(m.provider)!,
          };
        }),
      );
    },
    async 'app.info'(raw: unknown) {
      parseParams('app.info', raw);
      return { workspace: workspace(), home, defaultModel: defaultModelRef(config, env), defaultThinking: config.agent.thinking, version };
    },
  };
}
