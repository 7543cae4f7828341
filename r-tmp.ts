import { app } from './src/app'
for (const r of app.routes.slice(0, 200)) if (r.method !== 'GET') console.log(r.method, r.path, (r.hooks as any)?.auth, Object.keys(r.hooks ?? {}).join(','))
