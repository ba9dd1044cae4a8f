// Registers the io family (see each file).
export {};
