import audio from './audio.js';
import conversationList from './conversation-list.js';
import conversations from './conversations.js';
import demoSite from './demo-site.js';
import files from './files.js';
import operatorInbox from './operator-inbox.js';
import operatorSessions from './operator-sessions.js';
import payPage from './pay-page.js';
import payments from './payments.js';
import profile from './profile.js';
import replies from './replies.js';
import type { RouteModule } from './route-module.js';
import sms from './sms.js';
import training from './training.js';
import visitorHandoff from './visitor-handoff.js';
import workspaceFeedback from './workspace-feedback.js';
import workspaceMembers from './workspace-members.js';
import workspaces from './workspaces.js';

/** Every area of the service, one module each. `payPage` and `demoSite` set their own prefix (`/`). */
export const routeModules: RouteModule[] = [
  workspaces,
  workspaceMembers,
  workspaceFeedback,
  sms,
  conversations,
  conversationList,
  replies,
  visitorHandoff,
  audio,
  files,
  training,
  operatorSessions,
  operatorInbox,
  payments,
  profile,
  payPage,
  demoSite,
];
