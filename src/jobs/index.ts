// croner schedules run by the worker. Each job is { name, pattern, run }.
import { recomputeJob } from './recompute'
export interface Job {
	name: string
	pattern: string
	run: () => Promise<void>
}

export const jobs: Job[] = [recomputeJob]
