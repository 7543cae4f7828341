// Several plaza processes at once, as an operator runs them: each one named, with
// PORT=0 and (for workers) METRICS_PORT=0, so a test reads the ports they picked and
// looks through every log for errors afterwards.
import { type Plaza, spawnPlaza } from './process'

export interface PlazaProcess extends Plaza {
	name: string
	role: 'api' | 'worker'
}

/** Starts one named process; four starting at once on an empty database take a while. */
export async function startPlazaProcess(
	name: string,
	role: 'api' | 'worker',
	env: Record<string, string>,
): Promise<PlazaProcess> {
	const metrics: Record<string, string> = role === 'worker' ? { METRICS_PORT: '0' } : {}
	const plaza = await spawnPlaza(role, { ...env, ...metrics }, { startTimeoutMs: 60_000 })
	return Object.assign(plaza, { name, role })
}

/** Log lines at level error (50) or above, and any line naming a cross-slot failure. */
export function troubleIn(processes: PlazaProcess[]): { errors: string[]; crossSlot: string[] } {
	const all = processes.flatMap((p) =>
		[...p.stdout, ...p.stderr].map((line) => `${p.name}: ${line}`),
	)
	return {
		errors: all.filter((line) => /"level":(50|60)/.test(line)),
		crossSlot: all.filter((line) => /CROSSSLOT|same slot|slots allocation group/i.test(line)),
	}
}
