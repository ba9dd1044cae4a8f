/** The amqp family. Importing this module registers its components. */
export {};
