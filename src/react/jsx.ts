import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { SvcElementProps } from '../element-props.js';

/** An element's props in React: ours (from the manifest), with React's own (`ref`, `key`, `style`, DOM events). */
type ReactProps<Tag extends keyof SvcElementProps> = SvcElementProps[Tag] &
  DetailedHTMLProps<HTMLAttributes<HTMLElementTagNameMap[Tag]>, HTMLElementTagNameMap[Tag]>;

type SvcIntrinsicElements = { [Tag in keyof SvcElementProps]: ReactProps<Tag> };

// React 19 reads JSX types from the `react` module (no global `JSX`): `<svc-chat mode="inline">` in TSX is checked
// against the element, once anything of `@svc/agent-sdk/react` is imported.
declare module 'react' {
  namespace JSX {
    interface IntrinsicElements extends SvcIntrinsicElements {}
  }
}
