'use client';

import { createComponent, type EventName } from '@lit/react';
import * as React from 'react';
import { SvcInfoCollect } from '../cards/svc-info-collect.js';
import { SvcPaymentGate } from '../cards/svc-payment-gate.js';

type Event<K extends keyof GlobalEventHandlersEventMap> = EventName<GlobalEventHandlersEventMap[K]>;

/**
 * `<svc-info-collect>`: an information-collection card (`request`, from `extractInfoCollect`). Inside
 * `ChatBox` it answers by itself; alone, give it `client` and `conversationId`, or cancel `onSubmit`
 * (`event.preventDefault()`) and send the answer yourself.
 */
export const InfoCollectCard = createComponent({
  react: React,
  tagName: 'svc-info-collect',
  elementClass: SvcInfoCollect,
  events: { onSubmit: 'svc-info-submit' as Event<'svc-info-submit'> },
  displayName: 'InfoCollectCard',
});

/** `<svc-payment-gate>`: a payment card (`payment`, from `extractPaymentGate`). `onOpen` is cancelable. */
export const PaymentGateCard = createComponent({
  react: React,
  tagName: 'svc-payment-gate',
  elementClass: SvcPaymentGate,
  events: {
    onOpen: 'svc-payment-open' as Event<'svc-payment-open'>,
    onStatusChange: 'svc-payment-status' as Event<'svc-payment-status'>,
  },
  displayName: 'PaymentGateCard',
});

export type InfoCollectCardProps = React.ComponentProps<typeof InfoCollectCard>;
export type PaymentGateCardProps = React.ComponentProps<typeof PaymentGateCard>;
