/**
 * Skills (E9): a skill is a folder holding a SKILL.md — in the workspace (`.agentdesk/skills/<name>/` or
 * `skills/<name>/`) or in the user's folder (`<home>/skills/<name>/`). The system prompt lists each skill's name
 * and description (from the SKILL.md front matter `name:` / `description:`, else the folder name and first line);
 * the body is loaded on demand with the `load_skill` tool. Workspace skills are read through the workspace
 * confinement, so a SKILL.md symlinked out of the workspace is ignored. The catalogue is a snapshot reused until
 * a skills folder or a SKILL.md changes (mtime check): a run pays a few stat calls, not a re-read.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Tool } from '../../tools/types.js';
import { ToolError } from '../../tools/types.js';
import { resolveInWorkspace } from '../../tools/paths.js';

export const WORKSPACE_SKILL_DIRS = ['.agentdesk/skills', 'skills'];
export const SKILL_FILE = 'SKILL.md';
export const MAX_SKILL_CHARS = 40_000;
export const MAX_DESCRIPTION_CHARS = 300;
export const LOAD_SKILL_TOOL = 'load_skill';

export interface Skill {
  name: string;
  description: string;
  /** Real path of its SKILL.md. */
  file: string;
  source: 'workspace' | 'user';
}

/** Name and description from a SKILL.md text (front matter first, then the folder name and first prose line). */
export function parseSkillHeader(text: string, folder: string): { name: string; description: string; body: string } {
  let body = text;
  const meta: Record<string, string> = {};
  const fm = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (fm) {
    body = text.slice(fm[0].length);
    for (const line of fm[1]!.split(/\r?\n/)) {
      const m = /^([A-Za-z_-]+):\s*(.*)$/.exec(line);
      if (m) meta[m[1]!.toLowerCase()] = m[2]!.trim().replace(/^["']|["']$/g, '');
    }
  }
  const firstLine = body.split(/\r?\n/).map((l) => l.trim()).find((l) => l && !l.startsWith('#')) ?? '';
  const description = (meta.description || firstLine).slice(0, MAX_DESCRIPTION_CHARS);
  return { name: (meta.name || folder).trim(), description, body };
}

interface Root {
  dir: string;
  source: Skill['source'];
  /** Real workspace path when the root is inside the workspace (reads are confined to it). */
  confineTo?: string;
}

const mtimeOf = async (path: string): Promise<number> => (await stat(path).catch(() => undefined))?.mtimeMs ?? -1;

export class SkillCatalog {
  private cache: { key: string; skills: Skill[] } | undefined;

  constructor(private readonly roots: readonly Root[]) {}

  static for(opts: { workspace: string; home?: string }): SkillCatalog {
    return new SkillCatalog([
      ...WORKSPACE_SKILL_DIRS.map((d) => ({ dir: join(opts.workspace, d), source: 'workspace' as const, confineTo: opts.workspace })),
      ...(opts.home ? [{ dir: join(opts.home, 'skills'), source: 'user' as const }] : []),
    ]);
  }

  /** The skills, re-read only when a root folder or a known SKILL.md changed since the last snapshot. */
  async snapshot(): Promise<Skill[]> {
    const rootTimes = await Promise.all(this.roots.map((r) => mtimeOf(r.dir)));
    const fileTimes = this.cache ? await Promise.all(this.cache.skills.map((s) => mtimeOf(s.file))) : [];
    const key = JSON.stringify([rootTimes, fileTimes]);
    if (this.cache && this.cache.key === key) return this.cache.skills;
    const skills = await this.scan();
    this.cache = { key: JSON.stringify([rootTimes, await Promise.all(skills.map((s) => mtimeOf(s.file)))]), skills };
    return skills;
  }

  private async scan(): Promise<Skill[]> {
    const out: Skill[] = [];
    const seen = new Set<string>();
    for (const root of this.roots) {
      const entries = await readdir(root.dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
        const file = await this.realSkillFile(root, join(root.dir, entry.name, SKILL_FILE));
        if (!file) continue;
        const text = await readCapped(file, 4_000);
        const { name, description } = parseSkillHeader(text, entry.name);
        if (seen.has(name)) continue; // workspace skills shadow the user's of the same name
        seen.add(name);
        out.push({ name, description, file, source: root.source });
      }
    }
    return out;
  }

  private async realSkillFile(root: Root, path: string): Promise<string | undefined> {
    try {
      if (root.confineTo) return await resolveInWorkspace(root.confineTo, path);
      return (await stat(path)).isFile() ? path : undefined;
    } catch {
      return undefined; // missing, or outside the workspace through a symlink
    }
  }

  /** The `load_skill` tool: the body of one listed skill. */
  tool(): Tool {
    return {
      name: LOAD_SKILL_TOOL,
      mutating: false,
      description: 'Load the full instructions of one of the skills listed in the system prompt, by name.',
      parameters: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The skill name as listed.' } },
        required: ['name'],
        additionalProperties: false,
      },
      execute: async (args) => {
        const wanted = typeof args.name === 'string' ? args.name.trim() : '';
        const skills = await this.snapshot();
        const skill = skills.find((s) => s.name === wanted) ?? skills.find((s) => s.name.toLowerCase() === wanted.toLowerCase());
        if (!skill) throw new ToolError(`No skill named "${wanted}". Skills: ${skills.map((s) => s.name).join(', ') || 'none'}.`);
        const text = await readCapped(skill.file, MAX_SKILL_CHARS);
        return { content: parseSkillHeader(text, skill.name).body.trim() };
      },
    };
  }
}

/** Reads at most `max` characters (a note says how much was left out). */
export async function readCapped(path: string, max: number): Promise<string> {
  const text = await readFile(path, 'utf8');
  return text.length > max ? `${text.slice(0, max)}\n[… ${text.length - max} more characters not shown]` : text;
}

/** The prompt section listing skills (empty when there are none). */
export function skillsSection(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  return [
    '## Skills',
    `Load a skill's instructions with the ${LOAD_SKILL_TOOL} tool before you use it.`,
    ...skills.map((s) => `- ${s.name}: ${s.description || '(no description)'}`),
  ].join('\n');
}
