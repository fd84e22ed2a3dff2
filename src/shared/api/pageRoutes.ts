// The page's routes, in the fragment: the renderer is one index.html whose relative asset
// paths only resolve from "/", and a fragment never reaches the server or a Referer.

/** The route of a window showing one question: the tray's prompt windows and the main window's "open in a window". */
export function promptPageRoute(promptId: string): string {
  return `/#prompt=${encodeURIComponent(promptId)}`;
}

/** The main window's route. */
export const MAIN_PAGE_ROUTE = '/';
