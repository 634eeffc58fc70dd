// What the auth feature's routes (keys, users, invitations, organization, sessions) use from the program's deps.
import type { HttpDeps } from '../http/http-deps.js';
import type { KeyServiceDeps } from './api-keys.service.js';
import type { SignInCheckDeps } from './sign-in-credentials.js';
import type { SessionServiceDeps } from './sessions.service.js';

export type AuthRouteDeps = HttpDeps & KeyServiceDeps & SignInCheckDeps & SessionServiceDeps;
