/** Keys of a voice's own media in the bucket: every key names its workspace. */
export const voiceMediaKeys = {
  prefix: (workspaceId: string, voiceId: string) => `workspaces/${workspaceId}/voices/${voiceId}/`,
  preview: (workspaceId: string, voiceId: string) =>
    `workspaces/${workspaceId}/voices/${voiceId}/preview.wav`,
};
