# syntax=docker/dockerfile:1
# plaza: one image for both processes (ROLE=api | worker | all).

# 1. Production dependencies, installed from the npm lockfile (the same one CI uses).
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# 2. Runtime: Bun (the version pinned in package.json), the sources, a non-root user.
FROM oven/bun:1.4.5-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
	PORT=3000 \
	ROLE=all
# Files stay owned by root and read-only for the process; it writes nothing to disk
# in production (JWT_SECRET and SECRET_KEY come from the environment).
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bunfig.toml tsconfig.json ./
COPY migrations ./migrations
COPY scripts ./scripts
COPY src ./src
USER bun
EXPOSE 3000
# SIGTERM: stop accepting, finish in-flight requests and claimed deliveries, exit.
STOPSIGNAL SIGTERM
CMD ["bun", "src/index.ts"]
