export declare const SEED: number;
